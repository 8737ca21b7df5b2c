class Shape:
    def area(self):
        return 0

    size = area


Shape().size()
