module example.com/pointer_receiver

go 1.22
