module example.com/embedded_struct

go 1.22
