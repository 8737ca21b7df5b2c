package main

import (
	str "example.com/alias/pkg/strutil"
	"example.com/alias/pkg/go-mathx"
)

func main() {
	str.Upper("x")
	mathx.Double(2)
}
