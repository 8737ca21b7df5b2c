module example.com/alias

go 1.22
