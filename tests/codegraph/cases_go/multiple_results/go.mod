module example.com/multiple_results

go 1.22
