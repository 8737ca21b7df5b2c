package greet

type Greeter struct{ name string }

func New(name string) *Greeter { return &Greeter{name: name} }

func Hello(name string) string { return prefix() + name }

func (g *Greeter) Say() string { return Hello(g.name) }
