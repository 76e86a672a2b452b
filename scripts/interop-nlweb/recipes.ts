/**
 * A few dozen schema.org Recipes, in the tab-separated "url<TAB>json" form NLWeb's
 * `data_loading.db_load` reads, split over two sites so a `site` filter has something to filter.
 * Deterministic: every run loads the same items, so the recorded answers compare run to run.
 */
const DISHES = [
  ['Pumpkin Pie', 'pumpkin, sugar, eggs, cream, pie crust', 'dessert'],
  ['Vegan Pumpkin Soup', 'pumpkin, onion, coconut milk, ginger', 'soup'],
  ['Apple Crumble', 'apples, oats, butter, brown sugar', 'dessert'],
  ['Apple Cider Donuts', 'apple cider, flour, cinnamon, sugar', 'dessert'],
  ['Spicy Black Bean Chili', 'black beans, tomatoes, chili powder, cumin', 'main'],
  ['Vegan Lentil Chili', 'lentils, tomatoes, peppers, cumin', 'main'],
  ['Classic Beef Chili', 'beef, kidney beans, tomatoes, chili powder', 'main'],
  ['Lemon Garlic Roast Chicken', 'chicken, lemon, garlic, thyme', 'main'],
  ['Slow Roast Pork Shoulder', 'pork shoulder, fennel, garlic, salt', 'main'],
  ['Mushroom Risotto', 'arborio rice, mushrooms, parmesan, stock', 'main'],
  ['Vegan Mushroom Stroganoff', 'mushrooms, cashews, onion, paprika', 'main'],
  ['Banana Bread', 'bananas, flour, butter, walnuts', 'baking'],
  ['Chocolate Chip Cookies', 'flour, butter, chocolate chips, brown sugar', 'baking'],
  ['Sourdough Boule', 'flour, water, salt, starter', 'baking'],
  ['Blueberry Muffins', 'blueberries, flour, buttermilk, sugar', 'baking'],
  ['Pecan Pie', 'pecans, corn syrup, eggs, pie crust', 'dessert'],
  ['Sweet Potato Casserole', 'sweet potatoes, marshmallows, butter, pecans', 'side'],
  ['Green Bean Casserole', 'green beans, mushrooms, fried onions, cream', 'side'],
  ['Cranberry Sauce', 'cranberries, orange, sugar', 'side'],
  ['Roast Turkey', 'turkey, butter, sage, onion', 'main'],
  ['Pad Thai', 'rice noodles, tamarind, peanuts, egg', 'main'],
  ['Chicken Tikka Masala', 'chicken, yogurt, tomato, garam masala', 'main'],
  ['Falafel', 'chickpeas, parsley, cumin, garlic', 'main'],
  ['Hummus', 'chickpeas, tahini, lemon, garlic', 'side'],
  ['Margherita Pizza', 'flour, tomatoes, mozzarella, basil', 'main'],
  ['Caesar Salad', 'romaine, parmesan, croutons, anchovies', 'side'],
  ['French Onion Soup', 'onions, beef stock, gruyere, bread', 'soup'],
  ['Minestrone', 'beans, pasta, tomatoes, zucchini', 'soup'],
  ['Tiramisu', 'mascarpone, espresso, ladyfingers, cocoa', 'dessert'],
  ['Lemon Bars', 'lemons, sugar, eggs, shortbread', 'baking'],
] as const;

export const SITES = ['seriouseats', 'bakingbook'] as const;

export interface RecipeRow {
  site: (typeof SITES)[number];
  url: string;
  item: Record<string, unknown>;
}

export function recipes(): RecipeRow[] {
  return DISHES.map(([name, ingredients, course], i) => {
    // Baking and desserts on the second site, the rest on the first.
    const site = course === 'baking' || course === 'dessert' ? SITES[1] : SITES[0];
    const slug = name.toLowerCase().replace(/[^a-z]+/g, '-');
    const url = `https://${site}.example.com/recipes/${slug}`;
    return {
      site,
      url,
      item: {
        '@context': 'https://schema.org',
        '@type': 'Recipe',
        name,
        url,
        description: `${name}, a ${course} made with ${ingredients}.`,
        image: `https://${site}.example.com/img/${slug}.jpg`,
        recipeCategory: course,
        recipeIngredient: ingredients.split(', '),
        totalTime: `PT${20 + 5 * (i % 9)}M`,
        recipeYield: `${2 + (i % 6)} servings`,
        author: { '@type': 'Person', name: site === 'seriouseats' ? 'Kenji' : 'Stella' },
        aggregateRating: { '@type': 'AggregateRating', ratingValue: 4 + (i % 10) / 10, ratingCount: 10 + i },
      },
    };
  });
}

/** One site's rows as the loader's file: url, a tab, the JSON (a list, as crawled pages hold). */
export function loaderFile(site: string): string {
  return recipes()
    .filter((r) => r.site === site)
    .map((r) => `${r.url}\t${JSON.stringify([r.item])}`)
    .join('\n') + '\n';
}
