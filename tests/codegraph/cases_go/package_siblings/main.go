package main

func main() {
	run()
	var s Store
	s.Save()
}
