package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func build() string {
	var b strings.Builder
	b.WriteString("x")
	return b.String()
}

func command() *cobra.Command {
	cmd := &cobra.Command{Use: "app"}
	cmd.Flags()
	return cmd
}

func main() {
	fmt.Println(build())
	strings.ToUpper("x")
	command().Execute()
	os.Exit(0)
}
