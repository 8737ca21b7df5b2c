const tools = {
  format(s) {
    return s.trim();
  },
  print: (s) => console.log(s),
};

const { format, print: show } = tools;
const [first] = [format];

show(first(' x '));
