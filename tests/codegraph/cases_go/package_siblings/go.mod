module example.com/package_siblings

go 1.22
