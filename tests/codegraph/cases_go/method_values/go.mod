module example.com/method_values

go 1.22
