def test_square(square):
    square.area()


def test_circle(circle):
    circle.area()
