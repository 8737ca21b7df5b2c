module example.com/goroutines_defer

go 1.22
