module example.com/external_packages

go 1.22
