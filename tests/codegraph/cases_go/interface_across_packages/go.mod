module example.com/plug

go 1.22
