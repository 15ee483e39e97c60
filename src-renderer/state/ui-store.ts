import { create } from 'zustand';
import type { PageId } from './pages';

/** UI-only state. Server data lives in react-query, never here. */
interface UiState {
  page: PageId;
  navigate(page: PageId): void;
}

export const useUiStore = create<UiState>()((set) => ({
  page: 'overview',
  navigate: (page) => set({ page }),
}));
