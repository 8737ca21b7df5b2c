package main

import "example.com/alias2/state"

type Session = state.State

func current() *Session { return &Session{} }

func main() {
	s := current()
	s.Save()
	var t Session
	t.Save()
}
