// A fixture app whose one exposed method uses every statement and operator of the method
// language, so its golden output shows each translation.

export const everyStatementApp = `class Shop {
  name: Text
  status: Open | Closed = Open
  rating: Float?
  items: backlink Item.shop

  fn restock(amount: Money, label: Text) -> Int in txn {
    let n = count(self.items)
    if n > 0 and not (amount == 0) or self.rating == null {
      let n = n + amount * 2 - amount / 3 % 5
    } else if label == "none" {
      return -1
    } else {
      assert true otherwise abort "never"
    }
    insert Item { shop: self.id, price: amount, label: label }
    update Item { shop == self.id, price >= 0 } set price = amount
    update self set name = label, status = "Closed"
    let cheap = select Item { price < 100, id, price }
    let last = latest(self.items)
    update last set price = last.price + 1
    delete Item { price < 0 }
    update Item { price > 5000 }.price = 5000
    let dear = select Item { price >= 4000, kind == "Large" }
    update dear set kind = "Small", label = null
    delete dear
    assert self.name == label otherwise abort "renamed"
    return n + count(cheap) + last.price
  }

  fn summary() -> Text {
    if self.status == "Closed" {
      return "closed"
    }
    return self.name
  }

  service rest "/api/shops" expose list, get, restock, summary
}

class Item {
  shop: ref Shop
  price: Money
  label: Text?
  kind: Small | Large = Small

  service rest "/api/items" expose list
}
`;
