package main

import "example.com/names/lib/v2client"

func main() {
	client.Dial()
}
