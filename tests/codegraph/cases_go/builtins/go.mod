module example.com/builtins

go 1.22
