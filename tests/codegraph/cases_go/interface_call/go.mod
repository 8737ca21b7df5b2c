module example.com/interface_call

go 1.22
