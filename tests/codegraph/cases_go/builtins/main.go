package main

func main() {
	xs := make([]int, 0, 4)
	xs = append(xs, 1)
	n := len(xs) + cap(xs)
	p := new(int)
	*p = n
	s := string(rune(n))
	delete(map[string]int{}, s)
	if n < 0 {
		panic("negative")
	}
}
