module example.com/shadowing

go 1.22
