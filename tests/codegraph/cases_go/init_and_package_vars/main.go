package main

var registry = newRegistry()

var defaultName = name()

type Registry struct{}

func newRegistry() *Registry { return &Registry{} }

func (r *Registry) Add(n string) {}

func name() string { return "x" }

func init() {
	registry.Add("a")
}

func init() {
	registry.Add(defaultName)
}

func main() {
	registry.Add("b")
}
