package main

type Animal interface{ Sound() string }

type Dog struct{}

func (d *Dog) Sound() string { return "woof" }

func (d *Dog) Fetch() {}

func handle(a Animal) {
	if d, ok := a.(*Dog); ok {
		d.Fetch()
	}
	dog := a.(*Dog)
	dog.Fetch()
	switch v := a.(type) {
	case *Dog:
		_ = v
	}
}

func main() { handle(&Dog{}) }
