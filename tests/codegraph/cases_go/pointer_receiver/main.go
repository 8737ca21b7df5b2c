package main

type Counter struct{ n int }

func (c *Counter) Inc() { c.add(1) }

func (c *Counter) add(k int) { c.n += k }

func (c *Counter) Reset() {
	c.n = 0
	c.Inc()
}

func main() {
	c := &Counter{}
	c.Inc()
	c.Reset()
}
