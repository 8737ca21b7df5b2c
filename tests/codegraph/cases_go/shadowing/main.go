package main

func run() {}

func stop() {}

func main() {
	run := func() { stop() }
	run()
}

func other() {
	run()
}
