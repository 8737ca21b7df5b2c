module example.com/value_receiver

go 1.22
