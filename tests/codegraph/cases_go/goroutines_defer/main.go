package main

import "sync"

func worker(id int, wg *sync.WaitGroup) {
	defer wg.Done()
	process(id)
}

func process(id int) {}

func report() {}

func main() {
	var wg sync.WaitGroup
	wg.Add(2)
	go worker(1, &wg)
	go func() {
		worker(2, &wg)
	}()
	defer report()
	defer func() {
		if r := recover(); r != nil {
			report()
		}
	}()
	wg.Wait()
}
