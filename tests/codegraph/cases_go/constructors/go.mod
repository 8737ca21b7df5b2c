module example.com/constructors

go 1.22
