package main

type Inner struct{}

func (Inner) Hello() {}

func (Inner) Bye() {}

type Outer struct{ Inner }

func (Outer) Hello() {}

func main() {
	o := Outer{}
	o.Hello()
	o.Bye()
	o.Inner.Hello()
}
