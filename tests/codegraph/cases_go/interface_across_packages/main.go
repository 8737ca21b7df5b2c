package main

import (
	"example.com/plug/api"
	"example.com/plug/impl"
)

func use(p api.Plugin) { p.Activate() }

func main() {
	use(impl.New())
}
