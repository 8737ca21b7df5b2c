module example.com/init_and_package_vars

go 1.22
