module example.com/interface_method_set

go 1.22
