module example.com/collections

go 1.22
