module example.com/functions_local

go 1.22
