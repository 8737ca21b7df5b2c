module example.com/embedded_pointer_chain

go 1.22
