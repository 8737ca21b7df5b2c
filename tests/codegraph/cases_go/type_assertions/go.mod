module example.com/type_assertions

go 1.22
