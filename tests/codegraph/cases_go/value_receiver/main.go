package main

type Point struct{ x, y int }

func (p Point) Len() int { return p.x + p.y }

func (p Point) Scaled(k int) Point { return Point{p.x * k, p.y * k} }

func main() {
	p := Point{1, 2}
	p.Len()
	q := p.Scaled(2)
	q.Len()
	ptr := &p
	ptr.Len()
	p.Scaled(3).Len()
}
