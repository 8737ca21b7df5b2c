module example.com/generics

go 1.22
