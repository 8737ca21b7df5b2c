interface Greeter {
  greet(name: string): string;
}

class Polite implements Greeter {
  private count = 0;

  greet(name: string): string {
    this.count += 1;
    return this.decorate(`Good day, ${name}`);
  }

  private decorate(text: string): string {
    return `${text}.`;
  }
}

const greeter: Polite = new Polite();
console.log(greeter.greet('Ada'));
