package main

type Base struct{}

func (b *Base) ID() string { return "base" }

type Middle struct{ *Base }

func (m *Middle) Name() string { return "middle" }

type Top struct {
	*Middle
}

func main() {
	t := Top{}
	t.ID()
	t.Name()
}
