module example.com/fields

go 1.22
