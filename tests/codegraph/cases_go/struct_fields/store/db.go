package store

type DB struct{}

func (d DB) Query(q string) string { return q }
