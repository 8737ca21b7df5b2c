class Button {
  constructor(label, onPress) {
    this.label = label;
    this.onPress = onPress;
  }

  press() {
    this.onPress(this.label);
  }
}

class Form {
  submitted = 0;

  handleClick = (label) => {
    this.submitted += 1;
    this.log(label);
  };

  log(label) {
    console.log('clicked', label);
  }

  build() {
    return new Button('ok', this.handleClick);
  }
}

new Form().build().press();
