package main

type Store struct{}

func (s Store) Save() { prepare() }
