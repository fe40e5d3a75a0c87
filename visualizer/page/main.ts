import './styles.css';
import type { PageData } from '../server/page-data.js';
import { mountApp } from './app.js';

// The server (or `rein viz --out`) inlines the data; nothing is fetched but a live run's event stream.
const root = document.getElementById('app');
const source = document.getElementById('rein-data');
if (root && source) {
  try {
    mountApp(root, JSON.parse(source.textContent ?? '{}') as PageData);
  } catch (error) {
    root.textContent = `The rein visualizer could not start: ${(error as Error).message}`;
    root.classList.add('failed');
    throw error;
  }
}
