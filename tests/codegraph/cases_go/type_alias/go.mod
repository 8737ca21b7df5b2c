module example.com/alias2

go 1.22
