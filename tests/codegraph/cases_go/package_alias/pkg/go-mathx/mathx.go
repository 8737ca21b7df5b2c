package mathx

func Double(n int) int { return n * 2 }
