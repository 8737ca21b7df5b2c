package main

import "example.com/app/internal/greet"

func main() {
	greet.Hello("a")
	g := greet.New("b")
	g.Say()
}
