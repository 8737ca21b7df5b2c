package main

func work() {}

func cleanup() {}

func apply(f func()) { f() }

func main() {
	step := func() {
		work()
	}
	step()
	apply(func() {
		cleanup()
	})
	func() {
		work()
	}()
}
