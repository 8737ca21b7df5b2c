package greet

func prefix() string { return "hello " }
