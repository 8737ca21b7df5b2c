package state

type State struct{}

func (s *State) Save() {}
