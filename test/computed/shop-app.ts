// The app test/computed runs: boolean checks (one field, two fields), a computed Text, a
// materialized sum and an evaluated count over a backlink, methods that read and write them;
// computed fields over struct paths (`words(note.body)`), a list's items (`items.*`) and each
// other (`in_stock` reads `available`, declared below it).

export const shopWo = `class Person {
  first: Text
  last: Text
  full_name: Text = first + " " + last
  age: Int @check(value >= 0 and value <= 150)
  fn rename(f: Text) -> Text {
    update self set first = f
    return self.full_name
  }
  fn age_to(a: Int) {
    update self set age = a
  }
  service rest "/api/people" expose list, get, create, update, delete, rename, age_to, subscribe
}

class Booking {
  start: Int
  end: Int @check(self.end > self.start)
  service rest "/api/bookings" expose list, get, create, update
}

class Order {
  name: Text
  total: Int = sum(self.lines.amount) @materialized
  n: Int = count(self.lines)
  lines: backlink Line.order
  service rest "/api/orders" expose list, get, create, update, delete
}

class Parcel {
  label: Text
  note: { body: Text? }
  stock: { on_hand: Int, reserved: Int }
  in_stock: Bool = available > 0
  available: Int = stock.on_hand - stock.reserved
  word_count: Int = words(note.body)
  items: [{ qty: Int, price: Money }]
  value: Money = sum(items.*.qty * items.*.price) @materialized
  kinds: Int = count(items.*.qty)
  service rest "/api/parcels" expose list, get, create, update
}

class Line {
  order: ref Order
  amount: Int @check(> 0)
  service rest "/api/lines" expose list, get, create, update, delete
}
`;
