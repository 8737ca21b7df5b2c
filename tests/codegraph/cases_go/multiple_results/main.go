package main

type Conn struct{}

func (c *Conn) Close() {}

type Meta struct{}

func (m Meta) Print() {}

func dial() (*Conn, error) { return &Conn{}, nil }

func pair() (Meta, *Conn) { return Meta{}, &Conn{} }

func main() {
	c, err := dial()
	if err != nil {
		return
	}
	c.Close()
	m, d := pair()
	m.Print()
	d.Close()
	_, e := pair()
	e.Close()
}
