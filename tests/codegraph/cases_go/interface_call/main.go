package main

type Shape interface {
	Area() float64
}

type Square struct{ s float64 }

func (q Square) Area() float64 { return q.s * q.s }

type Circle struct{ r float64 }

func (c *Circle) Area() float64 { return 3 * c.r * c.r }

type Label struct{}

func (Label) Text() string { return "" }

func total(shapes []Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}

func describe(s Shape) float64 { return s.Area() }

func main() {
	total([]Shape{Square{2}, &Circle{1}})
	describe(Square{1})
}
