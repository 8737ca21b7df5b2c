module example.com/embedded_shadowing

go 1.22
