package main

func helper() int { return 1 }

func twice() int { return helper() + helper() }

func main() {
	twice()
	helper()
}
