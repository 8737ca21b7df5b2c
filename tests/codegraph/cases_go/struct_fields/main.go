package main

import "example.com/fields/store"

type Cache struct{}

func (c *Cache) Get(k string) string { return k }

type App struct {
	cache *Cache
	db    store.DB
	names []string
}

func (a *App) Lookup(k string) string {
	if v := a.cache.Get(k); v != "" {
		return v
	}
	return a.db.Query(k)
}

func main() {
	a := &App{cache: &Cache{}}
	a.Lookup("k")
}
